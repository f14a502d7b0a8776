//! context: {"__proto__": {"polluted": true}}
//! value: [null, null, "undefined", "undefined"]
Object.prototype.injected = 1;
return [({}).polluted === undefined ? null : 1, context.polluted === undefined ? null : 1,
        typeof Duktape, typeof require];
