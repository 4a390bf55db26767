/** test/plugin-host.suite.ts with plugins in the `vm` engine. */
import { definePluginHostSuite } from "./plugin-host.suite.js";

definePluginHostSuite("vm");
