import { Field, GraphQLISODateTime, Int, ObjectType } from 'type-graphql';

@ObjectType('ApiKey', { description: 'An API key of the organisation; the key itself is shown only when created.' })
export class ApiKeyType {
  @Field(() => Int) id!: number;
  @Field() name!: string;
  @Field({ description: 'The first characters of the key, to tell keys apart.' }) prefix!: string;
  @Field() active!: boolean;
  @Field(() => [String], { description: 'Hostnames, *.domain wildcards or IP addresses; empty = any host.' })
  allowedHosts!: string[];
  @Field(() => Int, { nullable: true, description: 'Read calls per rate-limit window; null = the platform default.' })
  rateLimit!: number | null;
  @Field({ description: 'Reads and searches only (a browser key: public by nature).' }) readOnly!: boolean;
  @Field(() => [Int], {
    nullable: true,
    description: 'The only events the key may reach; null = every event of the organisation.',
  })
  eventIds!: number[] | null;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => GraphQLISODateTime, { nullable: true }) lastUsedAt!: Date | null;
}

@ObjectType('CreatedApiKey')
export class CreatedApiKeyType {
  @Field({ description: 'The key. Shown once: only its hash is stored.' }) key!: string;
  @Field(() => ApiKeyType) apiKey!: ApiKeyType;
}
