import { createMemoryStore } from '../src/memory/index.js';
import { describeContractRules } from './contract/rules.js';

describeContractRules('memory', createMemoryStore);
