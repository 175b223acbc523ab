import { randomBytes } from 'node:crypto';
import { expect } from 'chai';
import { ESTIMATED_LENGTH, passwordWeakness } from '../src/auth/password-policy';

describe('password policy (docs/api/authentication.md, "Passwords")', function () {
  this.timeout(20_000); // the first check loads the dictionaries

  it('refuses common passwords and their l33t spellings, and accepts a passphrase and a random one', () => {
    for (const weak of ['password', '12345678', 'P@ssw0rd1', 'p4$$w0rd!', 'qwerty123456', 'dr4g0nb4ll', 'b4tm4n1989', 'summer2024!']) {
      expect(passwordWeakness(weak), weak).to.match(/^is too easy to guess: /);
    }
    for (const strong of ['correct horse battery staple', `pw-${randomBytes(8).toString('hex')}`, 'k8#Lm2$Qz9-vT4']) {
      expect(passwordWeakness(strong), strong).to.equal(undefined);
    }
  });

  it("refuses the account's own names, and passwords made of them", () => {
    const context = { username: 'harbour_admin', email: 'ops@harbour.example', companyName: 'Harbour Supplies' };
    expect(passwordWeakness('Harbour_Admin', context)).to.match(/account's own name/);
    expect(passwordWeakness('harbour_admin1', context)).to.match(/^is too easy to guess: /);
  });

  it(`judges only the first ${ESTIMATED_LENGTH} characters: a long password must be strong there`, () => {
    const strongTail = randomBytes(32).toString('hex');
    expect(passwordWeakness(`${'a'.repeat(ESTIMATED_LENGTH)}${strongTail}`)).to.match(/^is too easy to guess: /);
    expect(passwordWeakness(`${strongTail}${'a'.repeat(ESTIMATED_LENGTH)}`)).to.equal(undefined);
  });
});
