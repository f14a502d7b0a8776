//! value: [null,"none","nofn","object",null]
//! stdout: ""
const o = {a: {b: null}};
return [o?.a?.b?.c, o.x?.y ?? 'none', o.a.f?.() ?? 'nofn', typeof o?.a, o.a?.['b']];
