//! value: ["Symbol(tag)","tag",1,1,"symbol",true]
//! stdout: ""
const s = Symbol('tag');
const o = {[s]: 1, a: 2};
return [s.toString(), s.description, Object.keys(o).length, o[s], typeof Symbol.iterator,
        Symbol.for('k') === Symbol.for('k')];
