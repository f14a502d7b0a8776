//! value: ["005","ab..","xxx","t",true,true,"a-b-"]
//! stdout: ""
return ['5'.padStart(3, '0'), 'ab'.padEnd(4, '.'), 'x'.repeat(3), ' t '.trim(),
        'abc'.includes('b'), 'abc'.startsWith('a'), 'aXbX'.replaceAll('X', '-')];
