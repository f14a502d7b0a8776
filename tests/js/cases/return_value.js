//! context: {"a": 41}
//! value: 42
return context.a + 1;
