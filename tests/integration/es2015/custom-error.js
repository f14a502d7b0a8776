//! stdout: ""
//! error: SANDBOX_EXECUTION_FAILED
//! message: MyError: custom
class MyError extends Error {
    constructor(message) { super(message); this.name = 'MyError'; }
}
throw new MyError('custom');
