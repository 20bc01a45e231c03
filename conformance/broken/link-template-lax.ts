/**
 * BROKEN (R23b): checks only that the noticeLink template is some http(s) URL, in any letter case
 * and with any character, so `HTTPS://…` or a template with a backtick or a space is accepted and
 * lands in every notice text.
 */
import type { CreateOptions } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R23b', what: 'accepts any http(s) noticeLink template, whatever its case and characters' };

class LinkTemplateLax extends VariantStore {
  constructor(options: CreateOptions) {
    const { noticeLink, ...rest } = options;
    super(rest);
    if (noticeLink !== undefined) {
      if (!/^https?:\/\//i.test(noticeLink)) throw Object.assign(new Error('noticeLink must be an http(s) URL'), { name: 'ValidationError', field: 'noticeLink' });
      this.internals.options.noticeLink = noticeLink;
    }
  }
}

export const create = (options: CreateOptions) => new LinkTemplateLax(options);
