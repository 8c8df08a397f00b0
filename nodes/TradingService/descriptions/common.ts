import type { INodeProperties } from 'n8n-workflow';

/** The "Options" collection every operation and the trigger put their optional settings in. */
export function optionsCollection(options: INodeProperties[]): INodeProperties {
	return {
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		options,
	};
}
