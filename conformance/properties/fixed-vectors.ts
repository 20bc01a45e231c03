/**
 * vectors: the fixed vectors in conformance/vectors replay with their recorded outputs.
 */
import fc from 'fast-check';
import { vectorNeeds } from '../capabilities.js';
import { ConformanceFailure, type Scenario } from '../script.js';
import { loadVectors, runVector, scriptLineOf, vectorScenario } from '../vectors.js';
import type { ConformanceProperty } from './common.js';

export const vectors: ConformanceProperty = {
  name: 'vectors',
  rules: ['R1-R51'],
  title: 'the fixed vectors in conformance/vectors replay with the recorded outputs',
  runs: 1,
  fixed: true,
  arbitrary: () => fc.constant({ options: {}, commands: [] }),
  async check(_sc, ctx) {
    for (const v of loadVectors()) {
      const missing = vectorNeeds(v).filter((n) => ctx.lacks.includes(n));
      if (missing.length > 0) {
        ctx.skip(`vector ${v.name}`, `the implementation lacks ${missing.join(' and ')} (W4)`);
        continue;
      }
      const r = await runVector(ctx.factory, v);
      if (r.failure) {
        const err = new ConformanceFailure(scriptLineOf(v, r.failure.step), `vector ${v.name} (${v.rules.join(', ')}): ${r.failure.message}`);
        (err as ConformanceFailure & { scenario?: Scenario }).scenario = vectorScenario(v);
        throw err;
      }
    }
  },
};
