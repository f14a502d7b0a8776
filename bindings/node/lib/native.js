'use strict';
// Loads the addon: $SBX_NODE_ADDON (the build tree's tests point it at their build), else the
// one `npm install` built next to this package.
const path = require('node:path');

const file = process.env.SBX_NODE_ADDON || path.join(__dirname, '..', 'build', 'sbx.node');
const native = require(file);
module.exports = native;
// The telemetry bridge installs libsbx's hooks at load, before any run, when the host has
// @opentelemetry/api (it requires this module back: exports are already set).
require('./otel');
