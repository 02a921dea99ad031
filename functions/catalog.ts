import { handle } from 'hono/aws-lambda';
import { createCatalogApp } from '../lib/catalog/app';
import { depsFromEnvironment } from '../lib/deps';

export const handler = handle(createCatalogApp(depsFromEnvironment()));
