/**
 * BROKEN (R24): context keys decoded with Unicode case folding (NFKC, then lower case) instead of
 * ASCII case only, so `ſeſſion-ſtate:…` (U+017F folds to s) acks the pair `session-state:…` names.
 * Caught by the vector `r24-ascii-case-only`.
 */
import type { CreateOptions, NoticeAck } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R24', what: 'decodes context keys with Unicode case folding, so a key spelled with ſ acks a pair' };

class ContextKeyUnicodeFold extends VariantStore {
  override ackNotices(watcherSessionKey: string, notices: readonly NoticeAck[]) {
    const folded = Array.isArray(notices) ? notices.map((n) => (typeof n?.contextKey === 'string' ? { ...n, contextKey: n.contextKey.normalize('NFKC').toLowerCase() } : n)) : notices;
    return super.ackNotices(watcherSessionKey, folded);
  }
}

export const create = (options: CreateOptions) => new ContextKeyUnicodeFold(options);
