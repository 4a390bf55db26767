/** test/plugin-host.suite.ts with plugins in the `goja` engine. */
import { definePluginHostSuite } from "./plugin-host.suite.js";

definePluginHostSuite("goja");
