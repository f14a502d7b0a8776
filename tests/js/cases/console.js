//! stdout: "log 1 { k: [ true ] }\ninfo\ndebug\n"
//! stderr: "error Error: e\nwarn\n"
//! value: "done"
console.log('log', 1, {k: [true]});
console.info('info');
console.debug('debug');
console.error('error', new Error('e'));
console.warn('warn');
return 'done';
