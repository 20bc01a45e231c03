/**
 * session-state-kit/memory: the in-memory reference store of the contract (handles that share one
 * state act as several connections to one store).
 *
 * @module session-state-kit/memory
 */
export { MemoryStore, createMemoryStore, emptyMemoryState, type MemoryState, type MemoryStoreOptions } from './memory-store.js';
