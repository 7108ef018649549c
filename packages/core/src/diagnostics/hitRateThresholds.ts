// The reference's hit-rate thresholds, shared by formatCacheReport and diagnose.

/** Hit rate above which the cache is working (the reference's 70 %). */
export const EFFECTIVE_HIT_RATE = 0.7;
/** Hit rate below which the reference warns (30 %). */
export const LOW_HIT_RATE = 0.3;
