// The worker side of the "worker executor" row: the same loadSample as the page.
import { exposeLoader } from '@medfusion/web';
import { loadSample } from './sample.js';

exposeLoader((index, signal) => loadSample(self.location.origin, index, signal));
