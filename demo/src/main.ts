import { fromArray } from '@medfusion/core';

const status = document.querySelector('#status');
const ds = fromArray([1, 2, 3]);
if (status) status.textContent = `Pipeline ready: a dataset of ${ds.length} samples.`;
