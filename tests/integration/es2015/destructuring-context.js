//! context: {"items": [{"n": 1}, {"n": 2}]}
//! value: 3
//! stdout: ""
const {items = [], missing = 'default'} = context;
return items.reduce((sum, {n}) => sum + n, 0) + (missing === 'default' ? 0 : 100);
