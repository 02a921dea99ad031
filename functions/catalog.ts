import { createCatalogApp } from '../lib/catalog/app';
import { catalogRouteSets } from '../lib/catalog/routes';
import { depsFromEnvironment } from '../lib/composition';
import { functionHandler } from '../lib/lambda';

// API Gateway events go to the catalog app; sys's internal `openapi` invocation gets its paths.
export const handler = functionHandler('catalog', createCatalogApp(depsFromEnvironment()), catalogRouteSets);
