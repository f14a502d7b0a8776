//! value: [[1,2,[3]],[1,2,3],[1,10,2,20],[0,1,2],true,6,3,[3,2,1]]
//! stdout: ""
return [[1, [2, [3]]].flat(), [[1, [2, [3]]]].flat(Infinity), [1, 2].flatMap(x => [x, x * 10]),
        Array.from({length: 3}, (_, i) => i), [1, 2, 3].includes(2), [5, 6].find(x => x > 5),
        [1, 2, 3].at(-1), [1, 2, 3].reverse()];
