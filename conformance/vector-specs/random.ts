import fc from 'fast-check';
import { modelDrafts, optionsArb, scenario } from '../arbitraries.js';
import type { VectorSpec } from './dsl.js';

/** Random scripts from fixed seeds: the same mix the `model` property generates. */
export const RANDOM_SEEDS = [101, 202, 303, 404, 505, 606];

export function randomSpecs(): VectorSpec[] {
  return RANDOM_SEEDS.map((seed, i) => {
    const [sc] = fc.sample(scenario(optionsArb, modelDrafts(60)), { seed, numRuns: 1 });
    return {
      name: `random-${String(i + 1).padStart(2, '0')}`,
      rules: [],
      description: `A random script (fast-check seed ${seed}) over the shared key pool, as the model property generates them.`,
      options: sc!.options,
      script: sc!.commands,
    };
  });
}
