/**
 * U6: the classify options given to observeJsonlRead reach the classifier (the mutation run
 * replaced them by `{}` and no test noticed). A custom not-person marker decides which typed
 * lines are turns, and it replaces the defaults.
 */
import { describe, expect, it } from 'vitest';
import { DEFAULT_NOT_PERSON_MARKERS, observeJsonlRead, type JsonlMarker, type Observation } from '../../src/core/upstream/index.js';

const enc = new TextEncoder();
const dec = new TextDecoder();
const decode = (b: Uint8Array) => dec.decode(b);
const user = (text: string) => JSON.stringify({ type: 'user', message: { role: 'user', content: text } });
const chunk = enc.encode([user('[bot] nightly report'), user('typed by a person'), user('[Inter-session message] hi')].map((l) => `${l}\n`).join(''));
const facts = { size: 10_000, identity: '1:1' };
const plan = { from: 0, length: 0, lineStart: 0, epoch: 0, identity: '1:1' };
const prev: JsonlMarker = { offset: 0, epoch: 0, file: '1:1' };
const texts = (o: Observation) => {
  if (o.status !== 'found') throw new Error(`expected found, got ${o.status}`);
  return o.turns.map((t) => t.text);
};

describe('U6 observeJsonlRead passes its classify options on', () => {
  it('U6 by default only the default markers apply', () => {
    expect(texts(observeJsonlRead(plan, chunk, facts, decode, prev))).toEqual(['[bot] nightly report', 'typed by a person']);
  });

  it('U6 classify.notPersonMarkers replaces the defaults for every line read', () => {
    expect(texts(observeJsonlRead(plan, chunk, facts, decode, prev, { classify: { notPersonMarkers: ['[bot]'] } }))).toEqual(['typed by a person', '[Inter-session message] hi']);
    const both = { classify: { notPersonMarkers: [...DEFAULT_NOT_PERSON_MARKERS, /^\[bot\]/u] } };
    expect(texts(observeJsonlRead(plan, chunk, facts, decode, prev, both))).toEqual(['typed by a person']);
  });
});
