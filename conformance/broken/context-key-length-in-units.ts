/**
 * BROKEN (R27b): an ack's contextKey measured in UTF-16 code units instead of code points, so a
 * foreign key of 4,096 astral characters (8,192 units) is refused as too long instead of acking
 * nothing. Caught by the vector `r27b-context-key-length-in-code-points`.
 */
import type { CreateOptions, NoticeAck } from '../../spec/index.js';
import { ValidationError } from '../../src/core/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R27b', what: 'counts a context key\'s 4,096 limit in UTF-16 code units, not code points' };

class ContextKeyLengthInUnits extends VariantStore {
  override ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]) {
    if (Array.isArray(notices)) {
      notices.forEach((n, i) => {
        if (typeof n?.contextKey === 'string' && n.contextKey.length > 4096) throw new ValidationError(`notices.${i}.contextKey`, 'range', 'must not have more than 4096 characters');
      });
    }
    return super.ackNotices(watcherSessionKey, notices);
  }
}

export const create = (options: CreateOptions) => new ContextKeyLengthInUnits(options);
