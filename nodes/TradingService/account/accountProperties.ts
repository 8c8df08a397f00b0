import type { INodePropertyOptions } from 'n8n-workflow';

import { ACCOUNT_TYPES } from '../constants';

/** Account Type dropdown of the history operation and the trigger: Any (0) or one of spec §2.3. */
export const ACCOUNT_TYPE_OPTIONS: INodePropertyOptions[] = [
	{ name: 'Any', value: 0, description: 'Do not filter by account type' },
	...ACCOUNT_TYPES.map((accountType) => ({
		name: accountType.displayName,
		value: accountType.value,
	})),
];
