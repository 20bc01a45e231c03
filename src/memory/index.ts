export { MemoryStore, createMemoryStore, emptyMemoryState, type MemoryState, type MemoryStoreOptions } from './memory-store.js';
