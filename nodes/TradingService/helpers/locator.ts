import type { IDataObject } from 'n8n-workflow';

/**
 * The value a picker (resource locator: From List / By ID) holds, whichever mode chose it, once n8n
 * has resolved its expressions; any other value as it is, so typed fields read the same way.
 */
export function locatorValue(value: unknown): unknown {
	if (value !== null && typeof value === 'object' && (value as IDataObject).__rl === true)
		return (value as IDataObject).value;
	return value;
}
