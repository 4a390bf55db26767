import { PACKAGE_NAME } from "@sisyphus/core-hash"; console.log("bench ok", PACKAGE_NAME);
