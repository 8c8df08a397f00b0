/**
 * Public types of the Trading Service sandbox (see README.md beside this folder), one file per area.
 *
 * Ids (record ids, order ids, transfer ids) and all decimals are JSON strings:
 * the ids are 19-digit numbers, larger than Number.MAX_SAFE_INTEGER.
 */
export type * from './faults';
export type * from './futures';
export type * from './ledger';
export type * from './options';
export type * from './orders';
export type * from './otherHost';
export type * from './records';
export type * from './trades';
export type * from './sandbox';
export type * from './stream';
