import { ApiKey } from './api-key';
import { Company } from './company';
import { Location } from './location';
import { User } from './user';

export { ApiKey, Company, Location, User };
export * from './location';

export const ALL_MODELS = [Company, User, ApiKey, Location];
