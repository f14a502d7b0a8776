//! context: {"s": "😀"}
//! value: ["😀🎉", 2, 55357]
//! stdout: "😀 🎉\n"
console.log(context.s, '🎉');
return [context.s + '🎉', context.s.length, context.s.charCodeAt(0)];
