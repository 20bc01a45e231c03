/** BROKEN (R23): the notice text drops the quotes around the key in the session_status hint. */
import type { CreateOptions, Notice, WatchCursor } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R23', what: 'wrong notice text' };

class WrongNoticeText extends VariantStore {
  protected override noticesOf(c: WatchCursor): Notice[] {
    return super.noticesOf(c).map((n) => ({ ...n, text: n.text.replace(`session_status sessionKey "${n.targetSessionKey}"`, `session_status sessionKey ${n.targetSessionKey}`) }));
  }
}

export const create = (options: CreateOptions) => new WrongNoticeText(options);
