'use strict';
module.exports = { WorkerSandbox: require('./sandbox').WorkerSandbox };
