import { engineFaultTable } from './engine-faults.js'

// One fault mode of the engine fault table (test/engine-faults.ts); each mode is a file, run side by side.
engineFaultTable('garbage')
