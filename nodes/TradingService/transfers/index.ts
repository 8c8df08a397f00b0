import type { INodeProperties } from 'n8n-workflow';

import type { NodeVersion } from '../descriptions/pickers';
import type { Operations } from '../run/node.type';
import * as transferAsset from './transferAsset.operation';

/** Transfer Asset, an operation of the Account resource (account/index.ts lists it). */
export const operations = {
	transferAsset: {
		mode: 'perItem',
		writes: true,
		oneAtATime: true,
		execute: transferAsset.execute,
	},
} satisfies Operations;

export const description = (version: NodeVersion): INodeProperties[] =>
	transferAsset.description(version);
