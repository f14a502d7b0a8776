//! value: null
var unused = 1;
