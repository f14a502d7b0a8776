'use strict';
module.exports = { ProcessSandbox: require('./sandbox').ProcessSandbox };
