#!/usr/bin/env node
// The runtime's command (src/cli.ts). A file of its own, outside dist/, so
// that npm links it in a checkout before dist/ is built (as the plugin's bin).
import { main } from "../dist/cli.js";

// Exit now: a driver's socket still closing must not hold the command open.
process.exit(await main(process.argv.slice(2)));
