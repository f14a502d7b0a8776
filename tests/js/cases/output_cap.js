//! policy: {"maxOutputBytes": 16}
//! stdout: "0123456789\n01234"
//! stderr: "ééééé\néé"
//! truncated: true
//! value: "finished"
for (var i = 0; i < 100; i++) {
    console.log('0123456789');
    console.error('ééééé');
}
return 'finished';
