import { Field, GraphQLISODateTime, Int, ObjectType } from 'type-graphql';

@ObjectType('Member', {
  description: 'A member of an organisation, or an invitation that waits for the first sign-in (status pending).',
})
export class MemberType {
  @Field(() => Int) accountId!: number;
  @Field() email!: string;
  @Field({ description: 'admin or user.' }) role!: string;
  @Field({ description: 'active, or pending until the account first signs in.' }) status!: string;
  @Field(() => GraphQLISODateTime) createdAt!: Date;
  @Field(() => Boolean, {
    nullable: true,
    description:
      'On the answer to inviteMember: whether an invitation e-mail is on its way (SMTP configured). Null elsewhere.',
  })
  invitationMailed?: boolean | null;
}
