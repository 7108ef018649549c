// The worker side of the "worker executor" row: the same loadSample as the page. The page
// names the worker after the data server's origins (JSON), so it fetches from the same ones.
import { exposeLoader } from '@medfusion/web';
import { loadSample } from './sample.js';

const origins = JSON.parse(self.name) as string[];
exposeLoader((index, signal) => loadSample(origins, index, signal));
