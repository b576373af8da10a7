/**
 * The extraction libraries' versions, recorded with each document as its conversion lineage. Pinned
 * exactly in package.json; a test checks these against the installed packages.
 */
export const LIBRARY_VERSIONS = {
  '@mozilla/readability': '0.6.0',
  linkedom: '0.18.15',
  unpdf: '1.7.0',
  mammoth: '1.13.0',
  fflate: '0.8.3',
} as const;
