#!/usr/bin/env node
// Placeholder until this package lands.
console.error("not built yet");
process.exit(1);
