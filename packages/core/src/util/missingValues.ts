/**
 * Cells of a CSV that mean "no value": the default `missingValues` of
 * `CsvImageDataset`, and what `medfusion pack` skips when it infers a column's
 * type, so a data set packs and reads with one notion of a missing value.
 */
export const DEFAULT_MISSING_VALUES: readonly string[] = [
  '',
  'n/a',
  'N/A',
  'NA',
  '#N/A',
  'nan',
  'NaN',
  '-nan',
  'null',
  'NULL',
  'None',
  '?',
];
