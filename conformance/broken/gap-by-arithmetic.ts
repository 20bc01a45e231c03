/**
 * BROKEN (R33): historyGap from sequence arithmetic: "the first event is not since + 1, so
 * something is missing". Sequences are global and sparse (R7), so this cries wolf.
 */
import type { ChangesSinceRequest, CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R33', what: 'derives historyGap from gaps between sequences' };

class GapByArithmetic extends VariantStore {
  override changesSince(request: ChangesSinceRequest) {
    const r = super.changesSince(request);
    const first = r.stateChanges.events[0];
    return { ...r, stateChanges: { ...r.stateChanges, historyGap: first !== undefined && first.sequence > request.since + 1 } };
  }
}

export const create = (options: CreateOptions) => new GapByArithmetic(options);
