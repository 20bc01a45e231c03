import fc from 'fast-check';
import { describe, it } from 'vitest';
import { longLineProperty, transcriptProperty, echoProperty, missRuleProperty, neverSkipProperty, watchGapProperty } from './properties.js';

describe('upstream monitoring properties (PROTOCOL.md section 9)', () => {
  it('U2: three consecutive misses give exactly one upstream_missing and delete the link', async () => {
    await fc.assert(missRuleProperty, { numRuns: 150 });
  });

  it('U4: echoes of the last 10 own messages are suppressed, everything else counts', async () => {
    await fc.assert(echoProperty, { numRuns: 150 });
  });

  it('U5 Decision, R22: activity read while nobody watches never reaches a later watcher (store isWatched)', async () => {
    await fc.assert(watchGapProperty('isWatched'), { numRuns: 120 });
  });

  it('U5 Decision, R22: the same with the runtime demand predicate and a store without isWatched', async () => {
    await fc.assert(watchGapProperty('demand'), { numRuns: 80 });
  });

  it('U6: no byte is ever skipped, whatever the chunking and check timing', async () => {
    await fc.assert(neverSkipProperty(48), { numRuns: 100 });
  });

  it('U6: a line over the scan limit is read across checks and classified whole; nothing blocks, nothing is skipped', async () => {
    await fc.assert(longLineProperty, { numRuns: 60 });
  });

  it('U4 U6: generated transcripts mixing every record type: counted human turns equal the typed ones, own echoes never count', async () => {
    await fc.assert(transcriptProperty, { numRuns: 80 });
  });
});
