package guard

import "testing"

// Kinds of credential and look-alike read from the misses of the blind
// batches heldout17 to heldout20 (testdata/secrets-heldout.md); every
// sentence here was written for this test.

// TestOneTimeAndAppCodes: one-time codes, lower-case PINs, codes written
// before what they open, and app passwords and Wi-Fi keys by their names.
func TestOneTimeAndAppCodes(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"The verification code the bank texted is 482913, please type it in.", []string{"482913"}},
		{"验证码 739201，五分钟内有效。", []string{"739201"}},
		{"인증번호 551872 입력해 줘", []string{"551872"}},
		{"smsTAN für die Miete: 620394", []string{"620394"}},
		{"the garage keypad pin is 7714", []string{"7714"}},
		{"her work phone pin was 0912, she said", []string{"0912"}},
		{"7741 — that's the code for the back gate", []string{"7741"}},
		{"3920# 是车库门的密码", []string{"3920"}},
		{"0812 — la contraseña del trastero, no la compartas", []string{"0812"}},
		{"Hotel room safe: Priya set it to 604418 before dinner.", []string{"604418"}},
		{"Codice dell'antifurto del negozio: 55120", []string{"55120"}},
		{"オフィスの暗証番号は 39145 です", []string{"39145"}},
	}, []string{
		"The order ships in 2 days; tracking number 44120988.",
		"Call 4410 for the front desk.",
	})
}

// TestSecretsAsAnswers: a credential given as the answer to a question
// about one, in chats and mail; a question about something else, or a
// policy, is no question about a credential.
func TestSecretsAsAnswers(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"what's the nas password?\nit's Lumen-Fjord88", []string{"Lumen-Fjord88"}},
		{"[10:02] Ana: qual é a senha do wifi?\n[10:03] Rui: gaivota2291", []string{"gaivota2291"}},
		{"[19:40] Олег: какой пин у новой карты?\n[19:41] Маша: 5530", []string{"5530"}},
		{"tu te souviens du mdp de la box ? c'est QR7T-K2PL-8WMX", []string{"QR7T-K2PL-8WMX"}},
	}, []string{
		"what's the commit that broke the login?\n3f9a2c1d4e5b6a7980c1d2e3f4a5b6c7d8e9f012",
		"What's the password policy? 12 characters, one digit.",
		"Did you reset the password?\nNope, ask Ana tomorrow.",
	})
}

// TestSecretsOnCommandLinesAndTables: passwords set in SQL, given to
// snmp, lftp and ipmitool, in a CSV column named with a word more, under
// another language's name, and mode-named keys of unlisted providers.
func TestSecretsOnCommandLinesAndTables(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"Made the reporting user: CREATE USER 'rep'@'%' IDENTIFIED BY 'fjord7Lantern';", []string{"fjord7Lantern"}},
		{"ALTER ROLE etl WITH PASSWORD 'Tundra7rain';", []string{"Tundra7rain"}},
		{"snmpwalk -v2c -c quartz2281 192.0.2.4 system", []string{"quartz2281"}},
		{"lftp -u invoices,Walnut-Comet77 sftp.example.net -e 'mirror out'", []string{"Walnut-Comet77"}},
		{"ipmitool -I lanplus -H 192.0.2.9 -U admin -P marble4417 power status", []string{"marble4417"}},
		{"users.csv:\nlogin,mail,initial_password\nrkhan,r.khan@example.org,saffron88!", []string{"saffron88!"}},
		{"SMTP_CLAVE=Girasol2024!", []string{"Girasol2024!"}},
		{"billing SDK: new Client(\"shipfast_live_a8Kq2Lm9Zx4Rt7Wc3Vb6Np1Yd\")", []string{"shipfast_live_a8Kq2Lm9Zx4Rt7Wc3Vb6Np1Yd"}},
		{"Aliyun AccessKey ID LTAI5tQ8mZr2Vx7KpL3nW9aB, secret in the vault", []string{"LTAI5tQ8mZr2Vx7KpL3nW9aB"}},
	}, []string{
		"Checkout page uses the publishable key pk_live_Q2w9Lm4Zx8Rt7Wc3Vb6Np1Yd.",
		"db:\n  password: ENC[AES256_GCM,data:Zx8Rt7Wc3Vb6,iv:Q2w9Lm4Zx8Rt7Wc3Vb6Np1Yd0aB=,tag:Lm4Zx8Rt7Wc3Vb6Np1Yd0a==,type:str]",
		"To read the DB password: vault kv get -field=password kv/app/db",
		"values.yaml: auth.existingSecret: billing-db-credentials",
		`{"type": "service_account", "private_key_id": "5f0c2a9e81d4b7c63e2f1a0b9c8d7e6f5a4b3c2d"}`,
		"Idempotency-Key: 3c0d9a4e-1f2b-4c5d-8e9f-0a1b2c3d4e5f",
		"Docs use Stripe's sample key sk_test_4eC39HqLyjWDarjtT1zdp7dc.",
		"Host key fingerprint: SHA256:nThbg6kXUpJWGl7E1IGOCspRomTxdCARLviKw6E5SY8",
		"wifi ssid: Harbor-5G-7QX2 (the guest one is Harbor-Guest)",
		"Inline logo: iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNkYPhfDwAChwGA60e6kgAAAABJRU5ErkJggg",
	})
}

// TestOldValuesAndAsides: the old value beside a new one, a credential
// noun's aside in brackets (full-width too), a PIN alone in brackets,
// app passwords in groups of four, TOTP seeds, Laravel's APP_KEY, an
// Ethereum private key named as one, and codes by their number words;
// serial numbers, public client keys, NF-e access keys in groups, a
// transaction hash and membership numbers are left alone.
func TestOldValuesAndAsides(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"Update: the new PIN for the shop card is 3319; the old one (8842) was blocked.", []string{"3319", "8842"}},
		{"更新：路由器的新密码是 maple2211，旧的 cedar0412 已经不能用了。", []string{"maple2211", "cedar0412"}},
		{"Korrektur: Die PIN fürs Tablet ist jetzt 61730, nicht mehr 50214.", []string{"61730", "50214"}},
		{"Lena's vault master password (she wants me to remind her if she ever forgets it, which she fears): lantern-oyster-velvet-cobalt-17", []string{"lantern-oyster-velvet-cobalt-17"}},
		{"小程序配置：AppSecret（开发者密码）e41f07b9c2d85a36f1e90b7c4d2a8f65，别外传。", []string{"e41f07b9c2d85a36f1e90b7c4d2a8f65"}},
		{"Il PIN del bancomat (47291) lo tiene il nonno.", []string{"47291"}},
		{"The NAS mails alerts through Gmail with the app password qzxv bnrt kwpl hsdm on the ops account.", []string{"qzxv bnrt kwpl hsdm"}},
		{"TOTP seed for the shared inbox: JBSW Y3DP EHPK 3PXP", []string{"JBSW Y3DP EHPK 3PXP"}},
		{"APP_KEY rotated today: base64:Zq4Tn8Vb2Lm6Xc0Rw3Ys7Pk1Hd5Jf9Ga2Ue6Io0Ol4Na=", []string{"base64:Zq4Tn8Vb2Lm6Xc0Rw3Ys7Pk1Hd5Jf9Ga2Ue6Io0Ol4Na="}},
		{"The user exported the private key of the old wallet so we can sweep it later: 0x9f3c6a1e5b7d2f408c6e1a3b5d7f9e2c4a6b8d0f1e3c5a7b9d2f4e6a8c0b1d3e", []string{"0x9f3c6a1e5b7d2f408c6e1a3b5d7f9e2c4a6b8d0f1e3c5a7b9d2f4e6a8c0b1d3e"}},
		{"साइकिल के ताले का नंबर 4829", []string{"4829"}},
		{"ホテルの金庫の番号は7351にした。", []string{"7351"}},
	}, []string{
		"Kassensystem: TSE-Seriennummer 4f1e9a7c2b6d8e0f3a5c7e9b1d3f5a7c9e1b3d5f7a9c1e3b5d7f9a1c3e5b7d9f.",
		"Numéro de série du certificat : 0A1B2C3D4E5F60718293A4B5C6D7E8F9, émis par Let's Encrypt.",
		"토스페이먼츠 클라이언트 키 live_ck_Zx8Rt7Wc3Vb6Np1Yd0aB2cD4 — 프론트엔드용이라 공개돼도 됨.",
		"Chave de acesso da NF-e: 3524 0412 3456 7800 0190 5500 1000 0012 3410 0012 3456, para consultar a nota.",
		"Transaction hash of the sweep: 0x5e2b7c9a1d3f4e6b8a0c2e4f6a8b0d2c4e6f8a0b2d4c6e8f0a2b4d6c8e0f2a4b",
		"헬스장 회원번호 7820413, 사물함은 212번",
	})
}

// TestLearnedUpgradesPossible: a random string the rules only hold for
// confirmation is redacted when the learned judgement reads its sentence
// as naming a credential; nothing named stays held.
func TestLearnedUpgradesPossible(t *testing.T) {
	g := newTestGuard(t, Policy{})
	rules := newTestGuard(t, Policy{})
	rules.secretModel = nil
	for _, c := range []secretCase{
		{"API bancaire pour l'export compta : identifiant exp-2291, clé secrète 7b1d9e3f0c5a82e64f1b7c09d3a6e5f2.", []string{"7b1d9e3f0c5a82e64f1b7c09d3a6e5f2"}},
		{"Gateway pagamenti: alias SHOP_WEB_552 e chiave segreta 9XqL2vRt7KpW4mZs8YcN3bHf6JdG1aUe per il calcolo del codice MAC.", []string{"9XqL2vRt7KpW4mZs8YcN3bHf6JdG1aUe"}},
		{"Admin 키(서버 전용, 절대 공유 금지) 8c2e71f04b9d3a65e0f7c1b28d4a9e36", []string{"8c2e71f04b9d3a65e0f7c1b28d4a9e36"}},
	} {
		if res := rules.Check(Input{Text: c.text}); res.HasSecret || !res.NeedsConfirm {
			t.Errorf("rules alone on %q: HasSecret %v, NeedsConfirm %v; the case no longer tests the upgrade", c.text, res.HasSecret, res.NeedsConfirm)
		}
		checkRedacted(t, g, c.text, c.values...)
	}
	if res := g.Check(Input{Text: "Note: " + tAlnum40}); res.HasSecret || !res.NeedsConfirm {
		t.Errorf("a random string nothing names: HasSecret %v, NeedsConfirm %v; want it held", res.HasSecret, res.NeedsConfirm)
	}
}

// TestDollarPasswords: a password may open with a dollar sign; a shell
// variable after the same words is no value.
func TestDollarPasswords(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"the router password is $Harbor2291", []string{"$Harbor2291"}},
		{"Streaming login for the kids: kids.box@example.org / $Lemon7tree", []string{"$Lemon7tree"}},
		{"пароль от 1С: $Sosna1987", []string{"$Sosna1987"}},
	}, []string{
		"the deploy password is $DB_PASSWORD, set in CI",
		"the password comes from $HOME/.pgpass",
		"use the token in ${GITHUB_TOKEN} only",
	})
}

// TestCodesAsPeopleWriteThem: three-digit combinations of padlocks and
// luggage locks, a key pressed before the digits, a code word behind
// "is", particles and "set … to", a PIN after a card's last four, a
// Chinese noun glued to its value, a word and digits after "password",
// SIM PINs, a memorable word; and, left alone, game and sort codes, a
// token's lifetime, a pagination token, an issue number, a placeholder ending a sentence.
func TestCodesAsPeopleWriteThem(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"Senha do cadeado da bicicleta: 417.", []string{"417"}},
		{"行李箱的密码锁是 582", []string{"582"}},
		{"Codice del cancello: #4471", []string{"4471"}},
		{"Код домофона: *3305.", []string{"3305"}},
		{"The parcel room has a keypad now. Code is 6120# since Monday.", []string{"6120"}},
		{"아파트 공동현관은 582913 누르면 열려요", []string{"582913"}},
		{"सोसाइटी के गेट का कोड 5821", []string{"5821"}},
		{"Set the hotel room safe in Porto to 8142.", []string{"8142"}},
		{"Il PIN della carta terminante con 4410 è 7783.", []string{"7783"}},
		{"孩子的学习平台账号是手机号，密码lulu8866。", []string{"lulu8866"}},
		{"Court filing portal: password rosa417", []string{"rosa417"}},
		{"Online banking: PIN 51820, memorable word tulip", []string{"51820", "tulip"}},
		{"SIM card: PIN1 4471 · PUK1 83920174", []string{"4471", "83920174"}},
		{"Code CB de ma carte : 6610", []string{"6610"}},
		{"The door app's API secret is Tq8rVn2LsXw5Pz9KbM3cHd7Fy1Jg; the app ID is public.", []string{"Tq8rVn2LsXw5Pz9KbM3cHd7Fy1Jg"}},
	}, []string{
		"Steam friend code is 31158274, his phone has the authenticator.",
		"Salary goes to sort code 40-11-62, account 22981134.",
		"REFRESH_TOKEN_TTL=1209600",
		"next_page_token: b2Zmc2V0PTIwMCZsaW1pdD01MA==",
		"`edited` must never reach the deploy job, which is what closed #6948 at the gate.",
		"In .env.example the key is a placeholder: STRIPE_SECRET_KEY=sk_live_XXXXXXXXXXXXXXXX.",
	})
}

// TestCodesWithLettersAndPasscodes: door codes with a letter, a key
// pressed before a PIN's digits, alarm disarm numbers in Korean and
// Japanese, a meeting's passcode, a recovery code named in Italian, a
// Wi-Fi key in groups of digits right after its noun; a phone number
// in groups and a meeting id are no codes.
func TestCodesWithLettersAndPasscodes(t *testing.T) {
	g := newTestGuard(t, Policy{})
	checkCases(t, g, []secretCase{
		{"Front door of the coworking: code 4417C, then push hard.", []string{"4417C"}},
		{"El código del portal es B8830.", []string{"B8830"}},
		{"Türcode für die Handwerker: #6628", []string{"6628"}},
		{"오피스 세콤 해제 번호는 5521", []string{"5521"}},
		{"セコムの解除番号は 8841。", []string{"8841"}},
		{"Zoom for the tutoring: meeting ID 812 3345 9021, passcode kT7wq", []string{"kT7wq"}},
		{"Codice di ripristino dell'account: 7KQ2M-XW9PD-44JRT-B8N3V-QZ6HC", []string{"7KQ2M-XW9PD-44JRT-B8N3V-QZ6HC"}},
		{"FRITZ!Box in the flat, WLAN-Schlüssel 4830 2291 7765 0912 3348", []string{"4830 2291 7765 0912 3348"}},
	}, []string{
		"Alarm company out-of-hours line: 07761 445289.",
		"Meeting ID 812 3345 9021 for the Tuesday call.",
	})
}
