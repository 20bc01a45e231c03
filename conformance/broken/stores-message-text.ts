/**
 * BROKEN (R3, R4): keeps a free-text copy of the producer's line in the payload (payload.text),
 * the first step towards storing message text in the signal log.
 */
import type { CreateOptions, StateEvent } from '../../spec/index.js';
import { VariantStore } from './variant.js';

export const breaks = { rule: 'R4', what: 'stores free text in the payload' };

class StoresMessageText extends VariantStore {
  protected override toStored(event: StateEvent): StateEvent {
    return { ...event, payload: { ...(event.payload ?? {}), text: event.summary } as StateEvent['payload'] };
  }
}

export const create = (options: CreateOptions) => new StoresMessageText(options);
