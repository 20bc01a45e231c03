/**
 * R23b, §7: store options are checked when the store is built. A noticeLink template must start
 * with lowercase http:// or https:// and hold only printable ASCII without ", \, <, > or backtick;
 * every template here is refused with a ValidationError on noticeLink (vectors cannot say it: a
 * vector's store is built before its first step). What a template that is accepted does to the
 * text is in the vectors r23b-notice-link and r23b-template-edges.
 */
import fc from 'fast-check';
import type { SessionStateStore } from '../../spec/index.js';
import { ConformanceFailure, T0, closeQuietly } from '../script.js';
import type { ConformanceProperty } from './common.js';

/** Refused templates, each within WireCreateOptions (1..1,024 characters), so a wire implementation sees them too. */
export const REFUSED_LINK_TEMPLATES: readonly string[] = [
  'HTTPS://ui.example/{sessionKey}',
  'Http://ui.example/{sessionKey}',
  'ftp://ui.example/{sessionKey}',
  'ui.example/{sessionKey}',
  'http://',
  'https://ui.example/{sessionKey} now',
  'https://ui.example/`{sessionKey}`',
  'https://ui.example/"{sessionKey}"',
  'https://ui.example/\\{sessionKey}',
  'https://ui.example/<{sessionKey}>',
  'https://ui.example/caf\u00e9/{sessionKey}',
  'https://ui.example/\t{sessionKey}',
];

export const linkTemplate: ConformanceProperty = {
  name: 'R23b-link-template',
  rules: ['R23b'],
  needs: ['noticeLink'],
  title: 'a noticeLink template with another scheme, an uppercase scheme, a space, a quote, a backslash, an angle bracket, a backtick or a non-ASCII character is refused when the store is built (ValidationError on noticeLink)',
  runs: 1,
  fixed: true,
  arbitrary: () => fc.constant({ options: {}, commands: [] }),
  async check(_sc, ctx) {
    for (const [i, template] of REFUSED_LINK_TEMPLATES.entries()) {
      let store: SessionStateStore | undefined;
      let error: unknown;
      try {
        store = await ctx.factory({ now: () => T0, noticeLink: template });
      } catch (e) {
        error = e;
      }
      if (store) await closeQuietly(store);
      const e = error as { name?: unknown; field?: unknown } | undefined;
      if (!e || e.name !== 'ValidationError' || e.field !== 'noticeLink') {
        throw new ConformanceFailure(
          i + 1,
          `R23b: building a store with noticeLink ${JSON.stringify(template)} must throw a ValidationError on noticeLink; ${store ? 'the store was built' : `it threw ${String(e?.name)} on ${String(e?.field)}`}`,
        );
      }
    }
  },
};
