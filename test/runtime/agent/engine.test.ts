/**
 * The task engine's suite (engine-suite.ts) on the memory store, the
 * engine's default; engine-sql.test.ts runs it on the SQL store.
 */
import { engineSuite } from "./engine-suite.js";

engineSuite();
