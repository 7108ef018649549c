// The page: trains through the shared pipeline and publishes what it saw.
import { report, train } from './pipeline.js';

report(train);
