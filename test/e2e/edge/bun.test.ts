// Bun: the edge checks of suite.ts (how they run: README.md here).
import { edgeSuite } from "./suite.js";

edgeSuite("bun");
