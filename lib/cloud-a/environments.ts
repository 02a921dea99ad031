/**
 * The directory clouds `environment` chooses between, by the reference plugin's names (any
 * case); each gives the token authority, the graph and the resource manager.
 */
import { InvalidInput } from '../domain-errors';

export interface CloudEndpoints {
  authority: string;
  graph: string;
  resourceManager: string;
}

const CLOUDS: Record<string, CloudEndpoints> = {
  azurepubliccloud: {
    authority: 'https://login.microsoftonline.com',
    graph: 'https://graph.microsoft.com',
    resourceManager: 'https://management.azure.com',
  },
  azureusgovernmentcloud: {
    authority: 'https://login.microsoftonline.us',
    graph: 'https://graph.microsoft.us',
    resourceManager: 'https://management.usgovcloudapi.net',
  },
  azurechinacloud: {
    authority: 'https://login.chinacloudapi.cn',
    graph: 'https://microsoftgraph.chinacloudapi.cn',
    resourceManager: 'https://management.chinacloudapi.cn',
  },
  azuregermancloud: {
    authority: 'https://login.microsoftonline.de',
    graph: 'https://graph.microsoft.de',
    resourceManager: 'https://management.microsoftazure.de',
  },
};

export const ENVIRONMENT_NAMES = ['AzurePublicCloud', 'AzureUSGovernmentCloud', 'AzureChinaCloud', 'AzureGermanCloud'];

/** The endpoints of `environment` ("" is the public cloud); 400 for an unknown name. */
export function cloudOf(environment: string): CloudEndpoints {
  const key = (environment || 'AzurePublicCloud').toLowerCase();
  const hit = CLOUDS[key];
  if (!hit) throw new InvalidInput(`unknown environment "${environment.slice(0, 64)}": expected one of ${ENVIRONMENT_NAMES.join(', ')}`);
  return hit;
}
