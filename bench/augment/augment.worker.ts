// The augment pool's worker: the standard recipe, served to createAugmentWorkerPool.
import { exposeAugment } from '@medfusion/web';
import { sampleRecipe } from './recipe.js';

exposeAugment(sampleRecipe());
