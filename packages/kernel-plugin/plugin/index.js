// The frontend half of the plugin. SiYuan loads a plugin's kernel.js only when index.js exists
// (contract §5); the settings panel arrives with the frontend work of issue 15.
const { Plugin } = require("siyuan");

module.exports = class SisyphusPlugin extends Plugin {
  onload() {}
};
