package dedup

import (
	"strings"
	"testing"
)

// cjkPages are distinct pages in Japanese, Chinese and Korean (written
// for this test): each a few hundred characters without spaces between
// words.
var cjkPages = map[string]string{
	"ja-meeting": "定例会議は毎週月曜日の十時から本社三階の大会議室で開かれます。議題は前日までに総務部へ送ってください。" +
		"会議の資料は共有フォルダに置き、参加できない人は議事録で内容を確認してください。遅れて参加する場合は、" +
		"事前に議長へ連絡をお願いします。会議室の予約は社内システムから行い、終わったら机と椅子を元の位置に戻してください。",
	"ja-leave": "年次有給休暇の申請は、取得する日の二週間前までに上司へ提出してください。繁忙期には申請が重なることがあるため、" +
		"部署内で予定を調整してから申請してください。病気などで急に休む場合は、当日の始業時刻までに電話で連絡してください。" +
		"休暇の残り日数は人事システムで確認できます。翌年に繰り越せる日数には上限があります。",
	"zh-vpn": "远程办公的员工需要先连接公司的虚拟专用网络，才能访问内部系统。首次使用时，请从信息技术部门的网站下载客户端，" +
		"并使用公司账号登录。如果连接失败，请检查网络设置，或者联系服务台。出于安全考虑，请不要在公共电脑上保存密码，" +
		"离开座位时请锁定屏幕。每三个月需要更改一次密码。",
	"ko-cafeteria": "사내 식당은 평일 오전 일곱 시부터 열 시까지 아침을 제공하고, 열한 시 반부터 두 시까지 점심을 제공합니다. " +
		"샐러드 바와 오늘의 수프는 매일 이용할 수 있으며, 금요일에는 그릴이 운영되지 않습니다. 식권은 인사팀에서 구입할 수 " +
		"있고, 외부 손님과 함께 식사할 때는 미리 예약해 주십시오.",
}

// TestCJKCopies: on text without spaces between words, copies are told
// by the definition's resemblance of bigram shingles: the hybrid joins a
// variant to its page exactly when they resemble each other at least 0.9
// (a character changed on a page, a word in a sentence of a longer
// one; not a whole sentence of a short page), and no method joins different pages.
func TestCJKCopies(t *testing.T) {
	long := cjkPages["ja-meeting"] + cjkPages["ja-leave"]
	var docs []Document
	for id, text := range cjkPages {
		docs = append(docs, Document{ID: id, Text: text})
	}
	docs = append(docs, Document{ID: "ja-long", Text: long},
		Document{ID: "ja-meeting~char", Text: strings.Replace(cjkPages["ja-meeting"], "十時", "九時", 1)},
		Document{ID: "ja-meeting~sentence", Text: strings.Replace(cjkPages["ja-meeting"],
			"議題は前日までに総務部へ送ってください。", "議題は二日前までに秘書室へメールで送ってください。", 1)},
		Document{ID: "ja-long~sentence", Text: strings.Replace(long,
			"議題は前日までに総務部へ送ってください。", "議題は前日までに秘書室へ送ってください。", 1)},
		Document{ID: "zh-vpn~char", Text: strings.Replace(cjkPages["zh-vpn"], "三个月", "六个月", 1)},
		Document{ID: "ko-cafeteria~char", Text: strings.Replace(cjkPages["ko-cafeteria"], "일곱", "여덟", 1)},
	)
	text := map[string]string{}
	for _, d := range docs {
		text[d.ID] = d.Text
	}
	joins := 0
	for _, m := range []Method{Hybrid, SimHash} {
		t.Run(m.String(), func(t *testing.T) {
			det, _ := run(t, Options{Method: m}, docs)
			clusterOf := map[string]string{}
			for _, a := range det.Assignments() {
				clusterOf[a.ID] = string(a.Cluster)
			}
			for _, d := range docs {
				page, _, variant := strings.Cut(d.ID, "~")
				if !variant || m != Hybrid {
					continue
				}
				r := exactSim(Resemblance, text[page], d.Text)
				if joined := clusterOf[d.ID] == clusterOf[page]; joined != (r >= 0.9) {
					t.Errorf("%s joined to %s: %v, resemblance %.3f", d.ID, page, joined, r)
				} else if joined {
					joins++
				}
			}
			for a := range cjkPages {
				for b := range cjkPages {
					if a < b && clusterOf[a] == clusterOf[b] {
						t.Errorf("distinct pages %s and %s joined", a, b)
					}
				}
			}
		})
	}
	if joins < 2 {
		t.Errorf("%d variants joined, want at least ja-meeting~char and ja-long~sentence", joins)
	}
}
