export { MemoryStore, createMemoryStore, emptyMemoryState, type MemoryState } from './memory-store.js';
